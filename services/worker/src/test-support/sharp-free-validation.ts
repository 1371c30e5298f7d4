// Validates the image file named by argv[2] the way the worker does, in a process of its own,
// and prints the verdict with the sharp libraries this process loaded (output-decoder.test.ts):
// none, as the decoding happens in the decoder's process. Then it loads sharp itself and prints
// them again, so the probe is seen to find sharp where it is loaded.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { findJobType } from '@atelier/job-types';
import { OutputDecoder } from '../executors/output-decoder.js';
import { validateImageOutput } from '../executors/output-validation.js';

const sharpLibraries = () =>
  (process.report.getReport() as { sharedObjects: string[] }).sharedObjects.filter((file) => /sharp|vips/.test(basename(file)));

const verdict = await validateImageOutput(
  readFileSync(process.argv[2]!),
  findJobType('image.stylize')!.output!,
  {},
  new OutputDecoder({ idleMs: 0 }),
);
const inThisProcess = sharpLibraries();
await import('sharp');
console.log(JSON.stringify({ verdict, inThisProcess, afterImportingSharp: sharpLibraries() }));
// The decoder process ends with this one.
process.exit(0);
