import type { RouterContextProvider } from "react-router";
import { scopeOf } from "../http/context";
import { listTenantLists, offeredLists } from "./lists";

/** What the sign-up form (app/components/signup-form.tsx) needs: the lists it offers. */
export interface SignupFormData {
  lists: { key: string; name: string; description: string }[];
  /** the list ticked by default (the compact form joins only this one) */
  defaultList: string;
}

/**
 * The current tenant's lists for the sign-up form, for any page's loader to pass on. The default is
 * the tenant's configured default list, or its first list when that key is not one of its lists.
 */
export async function signupFormData(
  context: Readonly<RouterContextProvider>,
): Promise<SignupFormData> {
  const tenant = scopeOf(context).tenant;
  const lists = offeredLists(await listTenantLists(scopeOf(context).db, tenant));
  const configured = tenant.emailGroups.default;
  return {
    lists: lists.map(({ key, name, description }) => ({ key, name, description })),
    defaultList: lists.some((list) => list.key === configured)
      ? configured
      : (lists[0]?.key ?? configured),
  };
}
