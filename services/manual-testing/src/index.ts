// What a launcher needs: the module (embedded mounts it in-process; main.ts runs it as its own process).
export * from './module';
