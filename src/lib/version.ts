/** The release: `crew --version` prints it. Kept equal to package.json's version (test/e2e/binary.test.ts checks). */
export const VERSION = "1.0.0";
