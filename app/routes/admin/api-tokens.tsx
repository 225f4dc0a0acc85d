import { data, Form, useActionData, useNavigation } from "react-router";
import {
  createApiToken,
  listApiTokens,
  maxTokenLifetimeDays,
  revokeApiToken,
  TokenLifetimeError,
} from "../../../server/auth/api-tokens";
import { requireSuperAdmin } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import {
  allowedTokenLifetimes,
  newApiTokenSchema,
  TOKEN_SCOPE_LABELS,
  TOKEN_SCOPES,
} from "../../../shared/schemas/api-tokens";
import { AdminPage, AdminSection } from "../../components/admin-header";
import {
  ChoiceGroup,
  FieldShell,
  FilterSelect,
  SubmitButton,
  TextInput,
} from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import { StaffTime } from "../../lib/time-zone";
import type { Route } from "./+types/api-tokens";

export const meta: Route.MetaFunction = () => noindexMeta("API tokens");

/** /admin/api-tokens — super admins create and revoke the tokens scripts send as x-auth-token. */
export async function loader({ context }: Route.LoaderArgs) {
  requireSuperAdmin(context);
  const { db } = scopeOf(context);
  return {
    tokens: await listApiTokens(db),
    /** what the longest lifetime a super admin set (on /admin/account) allows */
    lifetimes: allowedTokenLifetimes(await maxTokenLifetimeDays(db)),
    now: new Date().toISOString(),
  };
}

type ActionResult =
  | { ok: true; created?: { name: string; token: string }; message: string }
  | { ok: false; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const user = requireSuperAdmin(context);
  const { db, logger } = scopeOf(context);
  const form = await request.formData();
  if (form.get("intent") === "revoke") {
    const id = String(form.get("id") ?? "");
    const revoked = await revokeApiToken(db, id);
    if (!revoked) {
      return data<ActionResult>(
        { ok: false, message: "That token does not exist or was already revoked." },
        { status: 404 },
      );
    }
    logger.info({ tokenId: id, actor: user.id }, "API token revoked");
    return data<ActionResult>({ ok: true, message: "Token revoked. It stops working at once." });
  }
  const input = newApiTokenSchema.safeParse({
    name: form.get("name") ?? "",
    scopes: form.getAll("scopes"),
    lifetimeDays: form.get("lifetimeDays") ?? "",
  });
  if (!input.success) {
    return data<ActionResult>(
      { ok: false, message: input.error.issues[0]?.message ?? "Invalid token" },
      { status: 400 },
    );
  }
  let made: Awaited<ReturnType<typeof createApiToken>>;
  try {
    made = await createApiToken(db, user, input.data.name, input.data);
  } catch (error) {
    if (!(error instanceof TokenLifetimeError)) throw error;
    return data<ActionResult>({ ok: false, message: error.message }, { status: 400 });
  }
  const { token, id } = made;
  logger.info({ tokenId: id, actor: user.id, scopes: input.data.scopes }, "API token created");
  return data<ActionResult>({
    ok: true,
    created: { name: input.data.name, token },
    message: "Token created.",
  });
}

export default function ApiTokens({ loaderData }: Route.ComponentProps) {
  const { tokens } = loaderData;
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const now = loaderData.now;
  return (
    <AdminPage title="API tokens" width="medium" className="space-y-8">
      <p>
        Scripts call the tenant API and the functions API with a token in the{" "}
        <code>x-auth-token</code> header. A token acts as the super admin who created it, but only
        within its scopes, and until it expires. It is shown once: copy it somewhere safe. See{" "}
        <a href="/api/openapi.json">/api/openapi.json</a>.
      </p>
      <div aria-live="polite">
        {result ? (
          <div
            role={result.ok ? "status" : "alert"}
            className={`rounded-brand border px-4 py-3 ${result.ok ? "border-ok/40 bg-ok/10" : "border-danger/40 bg-danger/10 text-danger"}`}
          >
            <p className="font-semibold">{result.message}</p>
            {result.ok && result.created ? (
              <div className="mt-2">
                <label htmlFor="new-token" className="block text-sm">
                  Token for <strong>{result.created.name}</strong> (shown once):
                </label>
                <TextInput
                  id="new-token"
                  readOnly
                  value={result.created.token}
                  className="mt-1 font-mono text-sm"
                  onFocus={(event) => event.currentTarget.select()}
                />
              </div>
            ) : null}
          </div>
        ) : null}
      </div>
      {/* A new key after each created token empties the form for the next one. */}
      <Form
        method="post"
        className="flex flex-wrap items-end gap-4"
        key={result?.ok && result.created ? result.created.token : "form"}
      >
        <div className="min-w-64 flex-1">
          <FieldShell id="token-name" label="Name">
            <TextInput id="token-name" name="name" required maxLength={100} />
          </FieldShell>
        </div>
        <ChoiceGroup
          legend="Scopes (what the token may do)"
          name="scopes"
          options={TOKEN_SCOPES.map((scope) => ({
            value: scope,
            label: TOKEN_SCOPE_LABELS[scope],
          }))}
          chosen={["read"]}
          fieldsetClassName="basis-full"
        />
        <FilterSelect
          name="lifetimeDays"
          label="Expires"
          defaultValue={String(
            loaderData.lifetimes.includes(90) ? 90 : (loaderData.lifetimes.at(-1) ?? ""),
          )}
          options={loaderData.lifetimes.map((days) => ({
            value: String(days),
            label: days === 0 ? "Never" : `In ${days} days`,
          }))}
        />
        <SubmitButton name="intent" value="create" pending={busy}>
          Create token
        </SubmitButton>
      </Form>
      <AdminSection id="tokens" title="Tokens">
        {tokens.length === 0 ? (
          <p className="mt-2">No tokens yet.</p>
        ) : (
          <ul className="mt-4 space-y-3">
            {tokens.map((token) => (
              <li
                key={token.id}
                className="flex flex-wrap items-center justify-between gap-3 rounded-brand border border-black/10 bg-surface p-4"
              >
                <div>
                  <p className="font-semibold">
                    {token.name}
                    {token.revokedAt ? (
                      <span className="ml-2 rounded bg-black/10 px-2 py-0.5 text-xs">revoked</span>
                    ) : null}
                  </p>
                  <p className="text-sm opacity-80">
                    By {token.ownerEmail} · created <StaffTime iso={token.createdAt} /> ·{" "}
                    {token.lastUsedAt ? (
                      <>
                        last used <StaffTime iso={token.lastUsedAt} />
                      </>
                    ) : (
                      "never used"
                    )}{" "}
                    ·{" "}
                    {token.expiresAt ? (
                      <>
                        {token.expiresAt <= now ? "expired" : "expires"}{" "}
                        <StaffTime iso={token.expiresAt} />
                      </>
                    ) : (
                      "never expires"
                    )}
                  </p>
                  <p className="text-sm">Scopes: {token.scopes.join(", ") || "none"}</p>
                </div>
                {token.revokedAt ? null : (
                  <Form method="post">
                    <input type="hidden" name="id" value={token.id} />
                    <button
                      type="submit"
                      name="intent"
                      value="revoke"
                      className="rounded-brand border-2 border-danger px-3 py-1.5 text-sm font-semibold text-danger"
                      aria-label={`Revoke ${token.name}`}
                    >
                      Revoke
                    </button>
                  </Form>
                )}
              </li>
            ))}
          </ul>
        )}
      </AdminSection>
    </AdminPage>
  );
}
