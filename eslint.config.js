// ESLint flat config: the recommended JavaScript and typescript-eslint rules over the whole project.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { apart, layers, ports, unspokenPackages } from './eslint.layers.ts';

/** A table's folder (`src/http/`) as a zone's path (`src/http`). */
const trim = (path) => path.replace(/\/$/, '');

/**
 * One zone per (layer, path of a higher layer): the layer's files may not import from that path.
 * Files inside a higher layer's folder that the table gives to another layer are left to that
 * layer's own zones (the HTTP vocabulary in src/http/).
 */
function layerZones() {
  return layers.flatMap((layer, index) =>
    layers.slice(index + 1).flatMap((higher) =>
      higher.paths.map((from) => ({
        target: layer.paths.map(trim),
        from: trim(from),
        except: layers
          .filter((other) => other !== higher)
          .flatMap((other) => other.paths)
          .filter((path) => from.endsWith('/') && path.startsWith(from))
          .map((path) => `./${path.slice(from.length)}`),
        message: `${layer.name} sits below ${higher.name} (eslint.layers.ts).`,
      })),
    ),
  );
}

/** One zone per port: the folder may import from the lower one only the files the port names. */
function portZones() {
  return ports.map((port) => ({
    target: trim(port.from),
    from: trim(port.into),
    except: port.through.map((file) => `./${file}`),
    message: `${port.from} reaches ${port.into} only through ${port.through.join(', ')} (eslint.layers.ts).`,
  }));
}

/** Two zones per pair of folders kept apart: neither may import from the other. */
function apartZones() {
  return apart.flatMap((folders) =>
    folders.flatMap((target) =>
      folders
        .filter((from) => from !== target)
        .map((from) => ({
          target: trim(target),
          from: trim(from),
          message: `${folders.join(' and ')} never import each other (eslint.layers.ts).`,
        })),
    ),
  );
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.wrangler/',
      'contracts/build/',
      'coverage/',
      '.conformance/',
      'packages/client/dist/',
      'test/artifacts/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // `_` marks a deliberately unused binding (e.g. destructuring a field away).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      // A binding read by a closure created before its one assignment must stay `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'no-console': 'error',
    },
  },
  // Imports run down the layers of src/ (eslint.layers.ts).
  {
    files: ['src/**/*.{ts,js}'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver()] },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { zones: [...layerZones(), ...portZones(), ...apartZones()] },
      ],
    },
  },
  ...unspokenPackages.map(({ paths, packages }) => ({
    files: paths.map((path) => `${path}**`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: packages.flatMap((name) => (name.endsWith('/*') ? [name] : [name, `${name}/*`])),
              message: `${paths.join(', ')} speak no transport; the adapters live in src/http/ and src/mcp/ (eslint.layers.ts).`,
            },
          ],
        },
      ],
    },
  })),
  // A function longer than a screenful hides a second concept; one that cannot be split says why in
  // its disable comment (`-- reason`, checked by test/unit/lint/function-length.test.ts).
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
    },
  },
  // The page's own script runs in the browser, beside Swagger UI's bundle.
  {
    files: ['src/http/discovery/assets/**'],
    languageOptions: { globals: { ...globals.browser, SwaggerUIBundle: 'readonly' } },
  },
  // Command-line scripts and benchmarks talk to a person on the console.
  { files: ['scripts/**', 'bench/**', 'examples/**'], rules: { 'no-console': 'off' } },
  // On Workers the console is where logs go (Workers Logs collect it).
  { files: ['src/edge/console-logger.ts', 'src/edge/worker.ts'], rules: { 'no-console': 'off' } },
);
