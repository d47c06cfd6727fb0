/// <reference types="vitest/config" />
import { defineConfig } from "vite";

// The dev server proxies the API and the socket to a locally running backend
// (`make run` serves on :3000), so the app always talks to its own origin.
const backend = process.env.BACKEND_URL ?? "http://localhost:3000";

export default defineConfig({
  oxc: { jsx: { runtime: "automatic" } },
  server: {
    port: 3001,
    proxy: {
      "/api": backend,
      "/socket.io": { target: backend, ws: true },
    },
  },
  build: {
    outDir: "build",
    emptyOutDir: true,
    // Keep the initial route small: the heavy libraries are only imported
    // from lazily loaded modules, so they land in their own chunks.
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      onwarn(warning, warn) {
        // react-router marks its modules "use client"; meaningless in an SPA bundle.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    css: false,
  },
});
