import { Link } from "../lib/page-scripts";
import { Notice, primaryButton, useCompanyName } from "./subscription-page";

/**
 * The one button behind a signed unsubscribe link (the unsubscribe page's ?token= and the one-click
 * link): a GET only asks, so a mail scanner fetching the link unsubscribes nobody. A plain form on
 * pages without scripts; their form enhancements give the button its busy label.
 */
export function ConfirmUnsubscribe({
  email,
  fields,
}: {
  email: string;
  /** the hidden fields the POST carries */
  fields: Record<string, string>;
}) {
  const companyName = useCompanyName();
  return (
    <form method="post" className="space-y-5" aria-label="Unsubscribe">
      <p className="break-words">
        Stop all newsletters from {companyName} to <strong>{email}</strong>?
      </p>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={primaryButton} data-busy-label="Unsubscribing…">
        Unsubscribe from all newsletters
      </button>
    </form>
  );
}

/**
 * What an address off every list reads: done now, or not subscribed in the first place. The way
 * back is a signed link to the preference centre when the page has one.
 */
export function UnsubscribedNotice({
  email,
  done,
  preferencesPath,
}: {
  email: string | null;
  done: boolean;
  preferencesPath: string | null;
}) {
  const companyName = useCompanyName();
  return (
    <Notice
      tone="ok"
      title={done ? "Unsubscribed Successfully" : "You are not subscribed"}
      testId="unsubscribed"
    >
      <p className="break-words">
        {email ? <strong>{email}</strong> : "This address"} will not receive newsletters from{" "}
        {companyName}.
        {preferencesPath ? (
          <>
            {" "}
            Changed your mind? <Link to={preferencesPath}>Choose your newsletters again</Link>.
          </>
        ) : null}
      </p>
    </Notice>
  );
}
