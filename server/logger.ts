import { pino } from "pino";
import { getEnv } from "./env";

export type Logger = pino.Logger;

let instance: Logger | undefined;

/** One JSON line per event; request handlers use a child with the request id. */
export function getLogger(): Logger {
  instance ??= pino({
    level: getEnv().LOG_LEVEL,
    redact: {
      paths: ["password", "*.password", "token", "*.token", "req.headers.cookie"],
      censor: "[redacted]",
    },
  });
  return instance;
}
