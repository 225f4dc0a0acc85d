import type { Products } from "../../server/auth/permissions";
import { createUser } from "../../server/auth/users";
import type { Db } from "../../server/db";

export const TEST_PASSWORD = "correct horse battery staple";

/** Creates a staff user straight in the test database. */
export async function createStaffUser(
  db: Db,
  input: { email: string; role?: string; products?: Products; password?: string },
) {
  return createUser(db, {
    email: input.email,
    password: input.password ?? TEST_PASSWORD,
    role: input.role ?? "editor",
    products: input.products ?? {},
  });
}

/** Signs in through the real login form; resolves to the Cookie header value for later requests. */
export async function signIn(
  baseUrl: string,
  email: string,
  password = TEST_PASSWORD,
): Promise<string> {
  const response = await fetch(`${baseUrl}/admin/login`, {
    method: "POST",
    body: new URLSearchParams({ email, password }),
    redirect: "manual",
  });
  const setCookie = response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith("herald_session="));
  if (response.status !== 302 || !setCookie) {
    throw new Error(`sign-in as ${email} failed with status ${response.status}`);
  }
  return setCookie.split(";")[0] as string;
}
