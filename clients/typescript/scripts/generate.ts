/**
 * `npm run generate`: writes `src/schema.ts` from the service's OpenAPI document, made in this
 * process from the service's code (no server needs to run).
 */
import { writeFileSync } from 'node:fs';
import { renderSchema, schemaFile } from './render-schema.js';
import { serviceOpenApiDocument } from './service-document.js';

const source = await renderSchema(await serviceOpenApiDocument());
writeFileSync(schemaFile, source);
console.log(`wrote ${schemaFile.pathname}`);
