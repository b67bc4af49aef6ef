#!/usr/bin/env node
// The `prepack` script of every published package. A package.json that names versions as
// `workspace:*` or `catalog:` is resolved only by pnpm (`pnpm pack`, `pnpm publish`), which
// writes the real versions into the tarball; npm, yarn or bun would pack them as they are, and
// the tarball would not install. So for anything but pnpm such a package stops here, before a
// broken tarball exists.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

// The tool running this script says where it is in npm_execpath (the user agent may be
// inherited from an enclosing pnpm script: npm reads npm_config_* variables as its own config).
// biome-ignore lint/suspicious/noUndeclaredEnvVars: read by `pnpm pack`'s prepack, never inside a turbo task.
const packer = basename(process.env.npm_execpath ?? '').replace(/(-cli)?\.[cm]?js$/, '') || 'this tool';
if (!packer.startsWith('pnpm')) {
  const manifest = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
  const unresolved = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) =>
    Object.entries(manifest[field] ?? {})
      .filter(([, version]) => /^(workspace|catalog):/.test(version))
      .map(([name, version]) => `"${name}": "${version}"`),
  );
  if (unresolved.length > 0) {
    console.error(
      [
        `${manifest.name}: pack and publish it with pnpm (\`pnpm pack\`, \`pnpm publish\`), not ${packer}.`,
        `Its package.json names ${unresolved.join(', ')}: only pnpm writes real versions for them;`,
        `${packer} would put them in the tarball as they are, and the tarball would not install.`,
      ].join('\n'),
    );
    process.exit(1);
  }
}
