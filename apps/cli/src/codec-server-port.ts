/**
 * `wharf codec-server`'s default port: 8234, the port of the native cluster's and the compose
 * file's codec server `wharf-codec`, which is the same server in the same role (the codec server
 * of a data plane, next to the Web UI's 8233). It is none of the cluster's other ports: the
 * workers' health ports start at 8081, which the command's old default took. Running both for
 * one data plane is needless (`wharf cluster env` exports the cluster's endpoint); for another,
 * pass `--port`.
 *
 * @example
 * ```ts
 * `http://127.0.0.1:${defaultCodecServerPort}`; // 'http://127.0.0.1:8234'
 * ```
 */
export const defaultCodecServerPort = 8234;
