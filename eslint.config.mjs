import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const tsFiles = ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'ormconfig.ts'];
const testFiles = ['test/**/*.ts', 'src/**/*.spec.ts'];

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', 'coverage/', 'data/', 'storage/']),

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
