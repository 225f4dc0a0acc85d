import type { ReactNode } from "react";
import { Form } from "react-router";
import { Link } from "../../lib/page-scripts";
import { dangerSubmitClass, outlineButtonClass, outlineLinkClass } from "./form";

/**
 * A one-button form posting `intent` (archive, delete…): the first step of an action; `danger`
 * for one that destroys or stops something.
 */
export function IntentButton({
  intent,
  danger = false,
  children,
}: {
  intent: string;
  danger?: boolean;
  children: string;
}) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className={danger ? dangerSubmitClass : outlineButtonClass}>
        {children}
      </button>
    </Form>
  );
}

/**
 * The question a destructive action asks first, on the page (no JavaScript needed): the same
 * fields again with `confirmed=yes`, or a way back that changes nothing.
 */
export function ConfirmPanel({
  title,
  fields,
  confirmLabel,
  keepLabel = "Keep it",
  children,
}: {
  title: string;
  /** the action's fields (intent, ids…), posted again with confirmed=yes */
  fields: Record<string, string>;
  confirmLabel: string;
  keepLabel?: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby="confirm-heading" className="rounded-brand border-2 border-danger p-4">
      <h3 id="confirm-heading" className="text-lg font-bold">
        {title}
      </h3>
      <div className="mt-1">{children}</div>
      <div className="mt-3 flex flex-wrap gap-3">
        <Form method="post">
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="confirmed" value="yes" />
          <button type="submit" className={dangerSubmitClass}>
            {confirmLabel}
          </button>
        </Form>
        <Link to="." relative="path" className={outlineLinkClass}>
          {keepLabel}
        </Link>
      </div>
    </section>
  );
}
