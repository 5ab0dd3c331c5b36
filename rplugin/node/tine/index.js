// Loaded by Neovim's classic node remote-plugin host (:UpdateRemotePlugins with g:node_host_prog
// set to node_modules/neovim/bin/cli.js). The code is the bundled host; see node/host/rplugin.ts.
const { join } = require("node:path");

module.exports = require(join(__dirname, "../../../dist/rplugin.cjs")).default;
