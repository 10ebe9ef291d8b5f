/** package.json's `engines.node`. */
export declare const engines: string;
/** The refusal of Node.js `version`, or undefined when `range` admits it. */
export declare function unsupportedNode(version: string, range: string): string | undefined;
