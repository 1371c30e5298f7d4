import { defineConfig } from 'vite';

// The gateway serves the build under /console/ (services/gateway/src/routes/console-routes.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // react-query's "use client" directives mean nothing outside React Server Components.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
});
