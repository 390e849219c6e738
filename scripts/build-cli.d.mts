// Types of build-cli.mjs, for the tests that run the built Node commands.
export declare const CLI_OUT_DIR: string
export declare const CLI_ENTRY: string
export declare const RELAY_ENTRY: string
export declare const START_ENTRY: string
export declare const OPTIONS_ENTRY: string
export declare function cliIsStale(): boolean
export declare function buildCli(): Promise<void>
