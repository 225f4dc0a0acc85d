import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

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
  plugins: [tailwindcss(), reactRouter(), tsconfigPaths()],
}));
