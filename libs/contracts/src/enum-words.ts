/** A ts-proto enum object: names to numbers, and (TypeScript's reverse map) numbers to names. */
type ProtoEnum = Record<string, string | number>;

/**
 * The word of each real value of a generated enum: its name in lower case, without proto3's
 * UNSPECIFIED zero and ts-proto's UNRECOGNIZED (-1). `JobStatus` → `'queued' | 'running' | …`.
 */
export type EnumWord<E extends ProtoEnum> = Lowercase<Exclude<Extract<keyof E, string>, 'UNSPECIFIED' | 'UNRECOGNIZED'>>;

/** The words of one enum's values, both ways. */
export interface EnumWords<E extends ProtoEnum> {
  /** Every word, in the enum's declaration order. */
  readonly words: readonly EnumWord<E>[];
  /** The word of a value, or undefined for UNSPECIFIED and values this build does not know. */
  wordOf(value: number): EnumWord<E> | undefined;
  /** The value a word names, or undefined. */
  fromWord(word: string): E[keyof E] | undefined;
}

/**
 * The words of a generated enum's values: the words the HTTP API, the stored columns and the logs
 * use, taken from the contract instead of listed again beside it (a value added to the .proto has
 * its word at once). `enumWords(jobsV1.JobStatus).wordOf(JobStatus.SUCCEEDED)` is `'succeeded'`.
 */
export function enumWords<E extends ProtoEnum>(values: E): EnumWords<E> {
  const pairs = Object.entries(values)
    .filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0)
    .map(([name, value]) => [name.toLowerCase() as EnumWord<E>, value] as const);
  const wordByValue = new Map<number, EnumWord<E>>(pairs.map(([word, value]) => [value, word]));
  const valueByWord = new Map<string, number>(pairs);
  return {
    words: pairs.map(([word]) => word),
    wordOf: (value) => wordByValue.get(value),
    fromWord: (word) => valueByWord.get(word) as E[keyof E] | undefined,
  };
}
