// The part of ua-parser-js 1.x (MIT) the service uses; the package ships no types.
declare module 'ua-parser-js' {
  interface UAParserResult {
    browser: { name?: string; version?: string; major?: string };
    os: { name?: string; version?: string };
    device: { vendor?: string; model?: string; type?: string };
  }
  const UAParser: (ua: string) => UAParserResult;
  export default UAParser;
}
