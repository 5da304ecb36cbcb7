// Types for the k6 jslib modules that sign.js imports by URL; tsc cannot fetch them, and @types/k6 does not cover them.
// Only what the script uses, as documented for k6-summary 0.1.0.

declare module 'https://jslib.k6.io/k6-summary/0.1.0/index.js' {
  /** Options for k6's default end-of-test text. */
  export interface TextSummaryOptions {
    indent?: string;
    enableColors?: boolean;
  }

  /** k6's default end-of-test text for the data handleSummary receives. */
  export function textSummary(data: object, options?: TextSummaryOptions): string;
}
