// A decoder process that exits before it is ready (output-decoder.test.ts), as one whose sharp
// does not load would.
process.exit(1);
