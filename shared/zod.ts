/**
 * zod for code that may run in the browser (app/ and shared/ import z from here, never from "zod").
 * zod 4 compiles object parsers with `new Function` when it can, and learns whether it can by
 * trying — which the pages' Content-Security-Policy refuses and the browser reports as a CSP
 * violation. In the browser it parses without compiling; the server keeps the compiled parsers.
 */
import { z } from "zod";

z.config({ jitless: typeof window !== "undefined" });

export { z };
