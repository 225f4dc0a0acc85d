import type { ReactNode } from "react";
import { MAX_EMAIL_LENGTH } from "../../shared/schemas/email";
import { SIGNUP_LIMITS } from "../../shared/schemas/signup";
import type { TenantSettings } from "../../shared/schemas/tenant";
import { brandingCssVariables } from "../../shared/theme";
import type { SignupList } from "./signup-form";

/*
 * The embedded sign-up form's pages (/embed/form and the answer of /embed/subscribe): whole small
 * documents, rendered on the server without the site's header, footer, stylesheet or any script,
 * so they fit in another site's iframe. The tenant's colours arrive as the site's CSS variables
 * (shared/theme.ts), already checked for contrast by the tenant manager.
 */

const STYLES = `
*{box-sizing:border-box}
body{margin:0;padding:16px;font-family:var(--brand-font);color:var(--brand-text);background:var(--brand-background);line-height:1.5}
h1{font-size:1.25rem;margin:0 0 .5rem}
p{margin:.5rem 0}
form{display:grid;gap:.9rem;max-width:32rem}
label,legend{font-weight:600}
fieldset{border:0;margin:0;padding:0;display:grid;gap:.4rem}
.choice{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
.choice input{margin-top:.3rem;accent-color:var(--brand-primary-strong)}
input[type=email],input[type=text]{display:block;width:100%;margin-top:.25rem;padding:.6rem .7rem;font:inherit;color:inherit;background:var(--brand-background);border:1px solid rgba(0,0,0,.45);border-radius:var(--brand-radius)}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--brand-primary-strong);outline-offset:2px}
button{justify-self:start;padding:.65rem 1.4rem;font:inherit;font-weight:600;color:var(--brand-on-primary-strong);background:var(--brand-primary-strong);border:0;border-radius:var(--brand-radius);cursor:pointer}
a{color:var(--brand-primary-strong);font-weight:600}
.optional{font-weight:400}
.error{color:var(--brand-error);font-weight:600}
.ok{color:var(--brand-success);font-weight:600}
.small{font-size:.875rem}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
`;

/** The tenant's name and colours, from its settings. */
type Branding = TenantSettings["branding"];

function EmbedDocument({
  title,
  branding,
  children,
}: {
  title: string;
  branding: Branding;
  children: ReactNode;
}) {
  return (
    <html lang="en" style={brandingCssVariables(branding) as React.CSSProperties}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{title}</title>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own constant stylesheet */}
        <style dangerouslySetInnerHTML={{ __html: STYLES }} />
      </head>
      <body>
        <main>{children}</main>
      </body>
    </html>
  );
}

export interface EmbedFormProps {
  branding: Branding;
  lists: SignupList[];
  defaultList: string;
  /** the page the frame is on, as its GET's Referer said (already checked against the sites) */
  page: string | null;
  privacyUrl: string;
  /** /embed/subscribe on this site (with the tenant's ?subdomain= where it needs one) */
  action: string;
}

/** GET /embed/form: email, name, the lists when there are several, the honeypot. */
export function EmbedForm({
  branding,
  lists,
  defaultList,
  page,
  privacyUrl,
  action,
}: EmbedFormProps) {
  return (
    <EmbedDocument title={`Subscribe to ${branding.companyName}`} branding={branding}>
      <h1>Subscribe to {branding.companyName}</h1>
      <form method="post" action={action} aria-label="Newsletter sign-up">
        {page ? <input type="hidden" name="page" value={page} /> : null}
        <label htmlFor="embed-email">
          Email
          <input
            id="embed-email"
            type="email"
            name="email"
            required
            maxLength={MAX_EMAIL_LENGTH}
            autoComplete="email"
          />
        </label>
        <label htmlFor="embed-name">
          Name <span className="optional">(optional)</span>
          <input
            id="embed-name"
            type="text"
            name="name"
            maxLength={SIGNUP_LIMITS.name}
            autoComplete="name"
          />
        </label>
        {lists.length > 1 ? (
          <fieldset>
            <legend>Newsletters</legend>
            <input type="hidden" name="chooseLists" value="1" />
            {lists.map((list) => (
              <label key={list.key} className="choice" htmlFor={`embed-list-${list.key}`}>
                <input
                  id={`embed-list-${list.key}`}
                  type="checkbox"
                  name="lists"
                  value={list.key}
                  defaultChecked={list.key === defaultList}
                />
                <span>{list.name}</span>
              </label>
            ))}
          </fieldset>
        ) : (
          <input type="hidden" name="lists" value={defaultList} />
        )}
        <div className="hp" aria-hidden="true">
          <label htmlFor="embed-website">Leave this field empty</label>
          <input id="embed-website" type="text" name="website" tabIndex={-1} autoComplete="off" />
        </div>
        <button type="submit">Subscribe</button>
        <p className="small">
          We will email you about your subscription.{" "}
          <a href={privacyUrl} target="_blank" rel="noopener">
            Privacy Policy
          </a>
        </p>
      </form>
    </EmbedDocument>
  );
}

export interface EmbedAnswerProps {
  branding: Branding;
  tone: "ok" | "error";
  title: string;
  messages: string[];
  /** the page the form was on, when known and allowed */
  backUrl: string | null;
}

/** What /embed/subscribe answers: what happens next, or what went wrong, and the way back. */
export function EmbedAnswer({ branding, tone, title, messages, backUrl }: EmbedAnswerProps) {
  return (
    <EmbedDocument title={`${title} — ${branding.companyName}`} branding={branding}>
      <h1>{title}</h1>
      <div role={tone === "ok" ? "status" : "alert"} data-testid="embed-answer">
        {messages.map((message) => (
          <p key={message} className={tone}>
            {message}
          </p>
        ))}
      </div>
      {backUrl ? (
        <p>
          {/* _top: from the iframe, back means the page around it */}
          <a href={backUrl} target="_top">
            Back to {new URL(backUrl).host}
          </a>
        </p>
      ) : null}
    </EmbedDocument>
  );
}
