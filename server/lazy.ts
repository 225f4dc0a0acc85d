/**
 * `load`, run on first call and shared by every later one: how a module few installs use (a
 * PostgreSQL or Redis client, the SMTP bounce listener, QR codes, CSV, S3, image processing) is
 * imported where it is first needed instead of at start (README, Performance, "Start-up"). A load
 * that fails is tried again on the next call. Type imports of such a module stay static: they are
 * erased from the build.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    if (!loaded) {
      const attempt = load();
      loaded = attempt;
      attempt.catch(() => {
        if (loaded === attempt) loaded = undefined;
      });
    }
    return loaded;
  };
}

/** Papa Parse, for CSV imports and exports (subscribers, Ghost and Substack files). */
export const loadPapaParse = lazy(() => import("papaparse").then((module) => module.default));
