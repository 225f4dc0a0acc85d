import { chromium } from "@playwright/test";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless","--no-sandbox","--disable-gpu","--disable-background-networking","--disable-component-update","--disable-sync"] });
for (const width of [600, 375]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto("file:///tmp/mail.html");
  await page.screenshot({ path: `/tmp/mail-${width}.png`, fullPage: true });
  console.log(width, await page.evaluate(() => document.documentElement.scrollWidth));
}
await browser.close();
