// @devicefarmer/adbkit-apkreader ships no types; only what apk.ts uses.
declare module '@devicefarmer/adbkit-apkreader' {
  interface ApkReader {
    readManifest(): Promise<unknown>;
  }
  const ApkReader: { open(file: string): Promise<ApkReader> };
  export default ApkReader;
}
