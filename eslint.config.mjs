import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import jest from 'eslint-plugin-jest';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const tsFiles = ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'client/**/*.ts', 'ormconfig.ts'];
const testFiles = ['test/**/*.ts', 'src/**/*.spec.ts'];

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', 'coverage/', 'data/', 'storage/', 'client/schema.ts']),

  // Plain JavaScript config files (eslint.config.js, jest.config.js, ...).
  {
    files: ['**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },

  // TypeScript sources: typescript-eslint recommended, without type information (fast).
  {
    files: tsFiles,
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
    },
  },
  {
    files: testFiles,
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },

  // No committed `.only`, `.skip`, `xit` or `xdescribe`: a test that needs a server it may not have
  // is declared through test/support/requirements.ts, which says when it did not run.
  {
    files: testFiles,
    plugins: { jest },
    languageOptions: { globals: jest.environments.globals.globals },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
    },
  },

  // A module never scopes a tenant by hand: the table gateway adds the tenant to every statement
  // (ScopedTable.scope), and the change feed's and the jobs' own tables are read in src/common.
  {
    files: ['src/modules/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/tenant_id\\s*=\\s*\\?/], TemplateElement[value.raw=/tenant_id\\s*=\\s*\\?/]',
          message: "Scope a tenant's rows through the table gateway (Tables.read / Tables.write), not by hand.",
        },
      ],
    },
  },

  // Configuration is read in exactly one place.
  {
    files: ['**/*.ts', '**/*.js'],
    ignores: ['src/common/config/app-config.ts', 'test/**', 'scripts/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through AppConfig (src/common/config/app-config.ts)',
        },
      ],
    },
  },
);
