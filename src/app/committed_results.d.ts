/** vite.config.ts `committedResults`: every docs/results/<preset>/results.json, without trajectories and curves. */
declare module 'virtual:committed-results' {
  const list: { preset: string; path: string; json: unknown }[];
  export default list;
}
