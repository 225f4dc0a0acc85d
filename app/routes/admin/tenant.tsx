import { useActionData, useNavigation, useSearchParams } from "react-router";
import { DKIM_MESSAGES, DKIM_OUTCOMES } from "../../../shared/schemas/dkim";
import { TENANT_MESSAGES } from "../../../shared/schemas/tenant";
import { DomainHealthSection } from "../../components/admin/domain-health";
import { LimitsSettings } from "../../components/admin/tenant-limits";
import {
  DangerZone,
  EditForm,
  History,
  type TenantActionResult,
  ViewMode,
} from "../../components/admin/tenant-manager";
import { VoiceNotesSettings } from "../../components/admin/voice-notes";
import { WebhookSettings } from "../../components/admin/webhook-settings";
import { AdminPage } from "../../components/admin-header";
import { DkimSettings } from "../../components/dkim-settings";
import { noindexMeta } from "../../lib/meta";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/tenant";
import type { action } from "./tenant.server";

export { action, loader } from "./tenant.server";

export const meta: Route.MetaFunction = ({ loaderData }) =>
  noindexMeta(loaderData ? `${loaderData.tenant.name} · Tenant manager` : "Tenant manager");

export default function TenantPage({ loaderData }: Route.ComponentProps) {
  const { tenant, settings, history, provider, deploymentProvider, dkim, dkimDefaults, timeZones } =
    loaderData;
  const result = useActionData<typeof action>() as TenantActionResult | undefined;
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const formValues =
    result && result.intent !== "dkim" && "values" in result && result.values
      ? result.values
      : null;
  const dkimResult = result?.intent === "dkim" ? result : null;
  const dkimDone = DKIM_OUTCOMES.find((done) => done === searchParams.get("dkim"));
  const editing = searchParams.get("edit") === "1" || formValues !== null;
  const failure = result?.intent === "save" ? result : null;
  const preview = result?.intent === "preview" ? result : null;
  const saving = navigation.state !== "idle" && navigation.formData?.get("intent") === "save";

  return (
    <AdminPage
      title={tenant.name}
      tenantName="Tenant manager"
      actions={
        <Link to="/admin/tenants" className="font-semibold">
          All tenants
        </Link>
      }
    >
      <div aria-live="polite" role="status">
        {searchParams.get("saved") === "1" && !result ? (
          <p className="mb-6 rounded-brand border border-ok/40 bg-ok/10 px-4 py-3 font-medium text-ok">
            {TENANT_MESSAGES.saved}
          </p>
        ) : null}
        {searchParams.get("saved") === "limits" && !result ? (
          <p className="mb-6 rounded-brand border border-ok/40 bg-ok/10 px-4 py-3 font-medium text-ok">
            Limits saved.
          </p>
        ) : null}
        {dkimDone && !result ? (
          <p className="mb-6 rounded-brand border border-ok/40 bg-ok/10 px-4 py-3 font-medium text-ok">
            {DKIM_MESSAGES[dkimDone]}
          </p>
        ) : null}
        {searchParams.get("domainHealth") === "checked" && !result ? (
          <p className="mb-6 rounded-brand border border-ok/40 bg-ok/10 px-4 py-3 font-medium text-ok">
            Sender domain checked: the results are under Sender domain health.
          </p>
        ) : null}
        {searchParams.get("created") === "1" && !result ? (
          <p className="mb-6 rounded-brand border border-ok/40 bg-ok/10 px-4 py-3 font-medium text-ok">
            Tenant created. It starts from the default configuration: edit it below.
          </p>
        ) : null}
      </div>
      {failure ? (
        <div
          role="alert"
          className="mb-6 rounded-brand border border-danger/40 bg-danger/10 px-4 py-3 text-danger"
        >
          <p className="font-semibold">{failure.message}</p>
          {Object.keys(failure.fields).length > 0 ? (
            <p className="mt-1 text-sm">
              {Object.keys(failure.fields).length === 1
                ? "One field needs attention"
                : `${Object.keys(failure.fields).length} fields need attention`}
              ; each is marked below.
            </p>
          ) : null}
        </div>
      ) : null}

      {editing ? (
        <EditForm
          key={failure ? "failed" : "fresh"}
          tenant={tenant}
          values={formValues ?? settings}
          errors={failure?.fields ?? {}}
          saving={saving}
          preview={preview}
          deploymentProvider={deploymentProvider}
          timeZones={timeZones}
        />
      ) : (
        <ViewMode tenant={tenant} settings={settings} preview={preview} provider={provider} />
      )}

      <DkimSettings
        tenantId={tenant.id}
        dkim={dkim}
        defaults={dkimDefaults}
        values={dkimResult?.values ?? null}
        fields={dkimResult?.fields ?? {}}
        message={dkimResult?.message ?? null}
      />
      <DomainHealthSection
        tenantId={tenant.id}
        data={loaderData.domainHealth}
        message={result?.intent === "domain-health" ? result.message : null}
      />
      <WebhookSettings
        tenantId={tenant.id}
        url={loaderData.webhook.url}
        secret={loaderData.webhook.secret}
        message={result?.intent === "webhook" ? result.message : null}
      />
      <LimitsSettings
        tenantId={tenant.id}
        {...loaderData.limits}
        message={result?.intent === "limits" ? result.message : null}
        fields={result?.intent === "limits" ? result.fields : {}}
      />
      <VoiceNotesSettings
        tenantId={tenant.id}
        {...loaderData.voice}
        message={result?.intent === "voice" ? result.message : null}
      />
      <History history={history} />
      {tenant.id !== "main" ? (
        <DangerZone
          tenantId={tenant.id}
          message={result?.intent === "delete" ? result.message : null}
        />
      ) : null}
    </AdminPage>
  );
}
