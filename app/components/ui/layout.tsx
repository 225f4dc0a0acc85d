import type { ReactNode } from "react";
import { Link } from "../../lib/page-scripts";

/** Page width and side padding shared by every public page. */
export function Container({
  children,
  className = "",
}: {
  children: ReactNode;
  className?: string;
}) {
  return <div className={`mx-auto max-w-6xl px-4 sm:px-6 ${className}`}>{children}</div>;
}

/** A page's opening band: eyebrow, the page's one h1 and a lead paragraph. */
export function PageHero({
  eyebrow,
  title,
  lead,
  children,
}: {
  eyebrow?: string;
  title: string;
  lead: string;
  children?: ReactNode;
}) {
  return (
    <section className="bg-brand/10 py-14 sm:py-20">
      <Container>
        {eyebrow ? (
          <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">
            {eyebrow}
          </p>
        ) : null}
        <h1 className="mt-2 max-w-3xl text-4xl font-bold leading-tight sm:text-5xl">{title}</h1>
        <p className="mt-5 max-w-2xl text-lg leading-relaxed sm:text-xl">{lead}</p>
        {children ? <div className="mt-8 flex flex-wrap gap-4">{children}</div> : null}
      </Container>
    </section>
  );
}

/** A titled section of a page. */
export function Section({
  title,
  intro,
  children,
  id,
  tone = "plain",
}: {
  title: string;
  intro?: string;
  children: ReactNode;
  id?: string;
  tone?: "plain" | "tinted";
}) {
  const headingId = id ? `${id}-heading` : undefined;
  return (
    <section
      id={id}
      aria-labelledby={headingId}
      className={tone === "tinted" ? "bg-black/[0.03] py-14 sm:py-16" : "py-14 sm:py-16"}
    >
      <Container>
        <h2 id={headingId} className="text-2xl font-bold sm:text-3xl">
          {title}
        </h2>
        {intro ? <p className="mt-3 max-w-3xl text-lg leading-relaxed">{intro}</p> : null}
        <div className="mt-8">{children}</div>
      </Container>
    </section>
  );
}

/** A bordered card with a heading. */
export function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <article className="h-full rounded-brand border border-black/10 bg-surface p-6 shadow-sm">
      <h3 className="text-lg font-semibold">{title}</h3>
      <div className="mt-2 leading-relaxed">{children}</div>
    </article>
  );
}

/** A link styled as a button: primary (filled with the brand colour) or secondary (outlined). */
export function ButtonLink({
  to,
  children,
  variant = "primary",
}: {
  to: string;
  children: ReactNode;
  variant?: "primary" | "secondary";
}) {
  const look =
    variant === "primary"
      ? "bg-brand-strong text-on-brand-strong hover:opacity-90"
      : "border-2 border-brand-strong text-brand-strong hover:bg-brand/10";
  return (
    <Link
      to={to}
      className={`inline-block rounded-brand px-5 py-3 font-semibold no-underline ${look}`}
    >
      {children}
    </Link>
  );
}

/** Closing call to action, used at the foot of the marketing pages. */
export function CallToAction({
  title,
  text,
  to = "/contact",
  label,
}: {
  title: string;
  text: string;
  to?: string;
  label: string;
}) {
  return (
    <section className="py-14">
      <Container>
        <div className="rounded-brand bg-brand-strong px-6 py-10 text-on-brand-strong sm:px-10">
          <h2 className="text-2xl font-bold sm:text-3xl">{title}</h2>
          <p className="mt-3 max-w-2xl text-lg">{text}</p>
          <Link
            to={to}
            className="mt-6 inline-block rounded-brand bg-surface px-5 py-3 font-semibold text-brand-strong no-underline hover:opacity-90"
          >
            {label}
          </Link>
        </div>
      </Container>
    </section>
  );
}

/** A bulleted list of short texts. */
export function BulletList({
  items,
  className = "space-y-2",
}: {
  items: readonly string[];
  className?: string;
}) {
  return (
    <ul className={`list-disc pl-5 ${className}`}>
      {items.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ul>
  );
}

/** A grid of cards, each a title and a paragraph (and optionally a list below it). */
export function TextCards({
  items,
  columns = "md:grid-cols-2",
}: {
  items: readonly { title: string; text: string; list?: readonly string[] }[];
  columns?: string;
}) {
  return (
    <div className={`grid gap-6 ${columns}`}>
      {items.map((item) => (
        <Card key={item.title} title={item.title}>
          <p>{item.text}</p>
          {item.list ? <BulletList items={item.list} className="mt-4 space-y-1 text-sm" /> : null}
        </Card>
      ))}
    </div>
  );
}

/** A paragraph that is one link onward ("Back to sign-in", "Ask for a new link"…). */
export function LinkLine({
  to,
  children,
  className = "mt-5",
}: {
  to: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <p className={className}>
      <Link to={to} className="font-semibold">
        {children}
      </Link>
    </p>
  );
}
