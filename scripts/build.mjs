// Bundles the Node host into one file that Neovim starts (dist/host.cjs), the same code for the
// classic remote-plugin host (dist/rplugin.cjs), plus the offline demo
// server used by `npm run try` (dist/mock-demo.cjs).
import { build } from "esbuild";

const common = { bundle: true, platform: "node", target: "node20", format: "cjs", sourcemap: "linked", logLevel: "warning" };
await Promise.all([
  build({ ...common, entryPoints: ["node/index.ts"], outfile: "dist/host.cjs" }),
  build({ ...common, entryPoints: ["node/rplugin.ts"], outfile: "dist/rplugin.cjs" }),
  build({ ...common, entryPoints: ["test/mock-anthropic/demo.ts"], outfile: "dist/mock-demo.cjs" }),
]);
