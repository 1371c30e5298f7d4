// @ts-check
// The workspace's own lint rules, where @nx/eslint-plugin looks for them (tools/eslint-rules):
// it registers each as `@nx/workspace-<name>`.
import { entryPoints } from './entry-points.js';

export const rules = { 'entry-points': entryPoints };
