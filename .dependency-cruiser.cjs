/**
 * The module boundaries (`npm run lint` checks them): src/common is the shared core and imports
 * no feature module; feature modules never import each other in a circle. The composition root
 * (src/app.module.ts) and src/database (entity list, seeds) may
 * import any module.
 */
/**
 * Feature modules in layers: a module may import only modules of lower layers, so no two modules
 * can ever depend on each other (directly or around a circle).
 */
const LAYERS = [
  ['mail', 'diagnostics', 'validation', 'customer', 'events'],
  ['auth', 'marketing', 'webhooks', 'tracking'],
  ['admin', 'audience', 'destination'],
  ['privacy', 'runs'],
  ['results'],
];

const layerRules = LAYERS.flatMap((layer, index) =>
  layer.map((module) => {
    const notBelow = LAYERS.slice(index)
      .flat()
      .filter((other) => other !== module);
    return {
      name: `layers-${module}`,
      comment: `${module} may import only modules of lower layers (${LAYERS.slice(0, index).flat().join(', ') || 'none'}).`,
      severity: 'error',
      from: { path: `^src/modules/${module}/` },
      to: { path: `^src/modules/(${notBelow.join('|')})/` },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'common-imports-no-module',
      comment: 'src/common is written once for every module: it must not know any of them.',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: '^src/(modules|database)/' },
    },
    {
      name: 'no-circular',
      comment: 'Two modules that need each other are one module, or a third thing is missing.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'modules-through-the-gateway',
      comment:
        "A tenant's rows are read and written through the table gateway (Tables → ScopedTable), never with " +
        'Database. Exceptions, each for rows above tenancy: the token stores (access-token.service, ' +
        'user-tokens.service, user-access.reader: personal access tokens, read by their own plain statement on ' +
        'every request; password-reset.service: reset tokens, keyed by e-mail) and roles.service ' +
        '(role_has_permissions, a join table of the seeded roles without an entity, read once per page).',
      severity: 'error',
      from: {
        path: '^src/modules/',
        pathNot:
          '^src/modules/(auth/(access-token\\.service|user-tokens\\.service|user-access\\.reader|password-reset\\.service)|admin/roles\\.service)\\.ts$',
      },
      to: { path: '^src/common/persistence/database\\.ts$' },
    },
    {
      name: 'modules-not-into-root',
      comment: 'A feature module does not reach into the composition root.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(app\\.module|app\\.factory|main)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.spec\\.ts$' },
  },
};
