import type { ReactNode } from "react";
import { Form } from "react-router";

/** A form of the tenant page: it posts with the tenant's id, the tenant its action changes. */
export function TenantForm({
  tenantId,
  className,
  noValidate,
  children,
}: {
  tenantId: string;
  className?: string;
  noValidate?: boolean;
  children: ReactNode;
}) {
  return (
    <Form method="post" className={className} noValidate={noValidate}>
      <input type="hidden" name="tenantId" value={tenantId} />
      {children}
    </Form>
  );
}
