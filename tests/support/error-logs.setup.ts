// Setup file of the unit and integration projects (vitest.config.ts): see error-logs.ts.
import { failOnUnexpectedErrors } from "./error-logs";

failOnUnexpectedErrors();
