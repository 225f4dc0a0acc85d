import { Kept, Link } from "../lib/page-scripts";

interface SiteFooterProps {
  companyName: string;
  companyAddress: string;
}

const FOOTER_PROPS = { className: "mt-16 border-t border-black/10 bg-black/[0.03]" };

export function SiteFooter({ companyName, companyAddress }: SiteFooterProps) {
  const year = new Date().getFullYear();
  return (
    <Kept
      as="footer"
      props={FOOTER_PROPS}
      part={FooterContent}
      data={{ companyName, companyAddress, year }}
    />
  );
}

function FooterContent({ companyName, companyAddress, year }: SiteFooterProps & { year: number }) {
  return (
    <div className="mx-auto grid max-w-6xl gap-8 px-4 py-10 sm:grid-cols-3 sm:px-6">
      <div>
        <p className="font-bold" data-testid="footer-company-name">
          {companyName}
        </p>
        {companyAddress ? <address className="mt-2 not-italic">{companyAddress}</address> : null}
      </div>
      <nav aria-label="Footer">
        <ul className="space-y-2">
          <li>
            <Link to="/newsletter">Newsletter</Link>
          </li>
          <li>
            <Link to="/contact">Contact</Link>
          </li>
          <li>
            <Link to="/privacy">Privacy Policy</Link>
          </li>
          <li>
            <Link to="/terms">Terms of Service</Link>
          </li>
        </ul>
      </nav>
      <p className="text-sm sm:text-right">
        © {year} {companyName}. All rights reserved.
      </p>
    </div>
  );
}
