// @ts-check
// The workspace's own lint rules, where @nx/eslint-plugin looks for them (tools/eslint-rules):
// it registers each as `@nx/workspace-<name>`.
import { entryPoints } from './entry-points.js';
import { layers } from './layers.js';
import { noImportCycle } from './no-import-cycle.js';

export const rules = { 'entry-points': entryPoints, layers, 'no-import-cycle': noImportCycle };
