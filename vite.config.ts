import path from "node:path";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

/**
 * Nothing under server/ may reach the browser. React Router strips loaders and actions (and the
 * imports only they use) from client route modules; an import of server/ that survives that is a
 * leak, and this fails the client build (and the dev page) on it — the rule React Router applies to
 * `.server` modules, applied to our server/ folder.
 */
function serverOnly(): Plugin {
  const serverDir = `${path.resolve("server")}${path.sep}`;
  const resolving = "herald:server-only";
  return {
    name: resolving,
    enforce: "pre",
    async resolveId(source, importer, options) {
      // Vite's dependency scan reads route modules whole, loaders included: not a client graph.
      const scan = (options as { scan?: boolean } | undefined)?.scan;
      // A URL the dev server is asked for directly has index.html as its importer: not an import.
      if (options?.ssr || scan || !importer || importer.endsWith(".html")) return;
      if (options?.custom?.[resolving]) return;
      const resolved = await this.resolve(source, importer, {
        ...options,
        custom: { ...options?.custom, [resolving]: true },
      });
      if (!resolved?.id.startsWith(serverDir)) return;
      throw new Error(
        `Server module referenced by browser code: '${source}' imported by '${path.relative(".", importer)}'. ` +
          "Only loaders, actions and other server-only exports may use server/; move shared code to shared/.",
      );
    },
  };
}

// The SSR build's entry is our Express app (server/http/app.ts), which wraps the
// React Router handler; server.js imports it (see react-router-templates/node-custom-server).
export default defineConfig(({ isSsrBuild }) => ({
  build: {
    rollupOptions: isSsrBuild ? { input: "./server/http/app.ts" } : undefined,
  },
  ssr: {
    // Native and CommonJS server packages stay external to the SSR bundle.
    external: ["better-sqlite3", "pg", "pino"],
  },
  plugins: [serverOnly(), tailwindcss(), reactRouter(), tsconfigPaths()],
}));
