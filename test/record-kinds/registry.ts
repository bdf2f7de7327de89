/**
 * The service's registry of kinds of record, and one line more: the note kind of this folder
 * (`note-kind/`), which no file of the service names.
 */
import { registry as serviceKinds } from '../../src/app/kinds.js';
import { defineRegistry } from '../../src/record-kinds/index.js';
import { notes } from './note-kind/kind.js';

export const registry = defineRegistry(import.meta.url, [...serviceKinds.kinds, notes]);
