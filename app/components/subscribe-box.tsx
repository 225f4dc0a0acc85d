import type { ComponentProps } from "react";
import { SignupForm } from "./signup-form";

/** The tenant's sign-up form in a box: beside the archive and at the end of every article. */
export function SubscribeBox({
  signup,
  title = "Subscribe",
}: {
  signup: ComponentProps<typeof SignupForm>;
  title?: string;
}) {
  return (
    <aside aria-labelledby="subscribe-heading">
      <div className="rounded-brand border-t-4 border-accent bg-surface p-6 shadow-sm ring-1 ring-black/5">
        <h2 id="subscribe-heading" className="text-xl font-bold">
          {title}
        </h2>
        <p className="mt-3 mb-5 leading-relaxed">
          Get each issue in your inbox. Pick the newsletters you want; you can change or cancel from
          any email.
        </p>
        <SignupForm {...signup} />
      </div>
    </aside>
  );
}
