// Lint rules: ESLint's and typescript-eslint's recommended sets, plus the project's conventions
// (style.md): no console in product code, named exports only, no `any`.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'migrations/**', '**/dist/**', '**/dist.*/**', 'coverage/**'] },
  {
    // dependency-cruiser reads a CommonJS config.
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: true, named: true, defaultFrom: true, namedFrom: true } }],
    },
  },
  {
    // The dashboard's hand-written UI: browser ES modules, served as they are.
    files: ['apps/dashboard/static/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'navigator', 'fetch', 'Node', 'HTMLElement', 'URLSearchParams', 'Intl'].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // Plain JavaScript run by Node: the build script, the command's entry, the era1 thread's source entry.
    files: ['scripts/**/*.js', 'apps/cli/bin/**/*.js', 'apps/*/src/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly', performance: 'readonly', URL: 'readonly' } },
  },
  {
    // Config files of tools that require a default export.
    files: ['vitest.config.ts', 'drizzle.config.ts', 'eslint.config.js'],
    rules: { 'no-restricted-exports': 'off' },
  },
)
