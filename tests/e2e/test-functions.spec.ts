import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "./fixtures";
import { createSuperAdmin, followStaffLink, signIn } from "./staff";

test("staff test the connection on /test/functions and read the JSON answer", async ({ page }) => {
  await page.goto("/test/functions");
  await expect(page).toHaveURL(/\/admin\/login\?redirectTo=%2Ftest%2Ffunctions$/);

  await signIn(page, await createSuperAdmin("functions"));
  await followStaffLink(page, "Settings", "Diagnostics");
  await expect(page).toHaveURL(/\/test\/functions$/);
  await expect(page.getByRole("heading", { level: 1, name: "Function diagnostics" })).toBeVisible();
  await expect(page.getByTestId("function-status")).toHaveText("Choose a function to call.");

  await page.getByLabel("Name").fill("Ada Admin");
  await page.getByRole("button", { name: "Test Connection" }).click();
  await expect(page.getByTestId("function-status")).toHaveText("helloWorld succeeded.");
  const result = page.getByTestId("function-result");
  await expect(result).toContainText('"message": "Hello from Herald!"');
  const answer = JSON.parse((await result.textContent()) ?? "");
  expect(answer.result).toMatchObject({ test: true, tenantId: "main" });
  // The form keeps what was typed.
  await expect(page.getByLabel("Name")).toHaveValue("Ada Admin");

  await page.screenshot({
    path: join(tmpdir(), "herald-test-functions-desktop.png"),
    fullPage: true,
  });

  // A failure shows its message and the error envelope.
  await page.getByLabel("Email").fill("");
  await page.getByRole("button", { name: "Add Subscriber" }).click();
  await expect(page.getByTestId("function-status")).toHaveText(
    "addSubscriber failed: email: Please enter your email address.",
  );
  await expect(result).toContainText('"status": "INVALID_ARGUMENT"');

  // The page's own origin may call the API with fetch, anonymously or as the signed-in user.
  const fromPage = await page.evaluate(async () => {
    const call = async (name: string) => {
      const response = await fetch(`/api/functions/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ data: { test: "from the page" } }),
      });
      return { status: response.status, body: await response.json() };
    };
    return { hello: await call("helloWorld"), campaigns: await call("getCampaigns") };
  });
  expect(fromPage.hello.status).toBe(200);
  expect(fromPage.hello.body.result.test).toBe("from the page");
  // The session cookie goes with it: a staff-only function answers (unknown keys are ignored).
  expect(fromPage.campaigns.status).toBe(200);
  expect(fromPage.campaigns.body.result).toMatchObject({ success: true, limit: 25, page: 1 });
});

test("the page fits a phone", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, await createSuperAdmin("functions-phone"));
  await page.goto("/test/functions");
  await page.getByRole("button", { name: "Test Connection" }).click();
  await expect(page.getByTestId("function-status")).toHaveText("helloWorld succeeded.");
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({
    path: join(tmpdir(), "herald-test-functions-phone.png"),
    fullPage: true,
  });
});
