// @verdict/client/demo: the demo shop's history (pure, deterministic) and its loader through the client.
export {
  demoHistory,
  type DemoHistory,
  type DemoHistoryOptions,
  type DemoRun,
  type DemoStory,
  type DemoTestRef,
} from './history';
export { loadDemoRuns, type DemoLoadOptions, type DemoLoadProgress, type DemoLoadSummary } from './load';
export { DEMO_SPECS } from './catalog';
