/**
 * Stops at once, with one line saying what to do, when the project's Node.js 24 is missing: npm ci
 * installs it into node_modules through the `node` package's install script, so a machine whose
 * npm refused that script (`--ignore-scripts`, an `allowScripts` policy without it) runs `npm start`
 * on its own older Node. Plain JavaScript that any Node.js parses; imported first by `src/start.js`.
 */
const REQUIRED_MAJOR = 24;

if (Number(process.versions.node.split('.')[0]) < REQUIRED_MAJOR) {
  process.stderr.write(
    `website-checks needs Node.js ${REQUIRED_MAJOR} (this is ${process.version}): npm did not run the install script of the "node" package, which puts it in node_modules; allow it (package.json "allowScripts") and run: npm rebuild node\n`,
  );
  process.exit(1);
}
