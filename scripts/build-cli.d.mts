// Types of build-cli.mjs, for the tests that build the agent before running it.
export declare const CLI_OUT_DIR: string
export declare const CLI_ENTRY: string
export declare function cliIsStale(): boolean
export declare function buildCli(): Promise<void>
