import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The package version, shown in the OpenAPI document and the command line's `--version`. */
export const serviceVersion: string = pkg.version;
