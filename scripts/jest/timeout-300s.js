// Real servers and real processes are slower than unit tests; a per-project testTimeout is not honoured.
jest.setTimeout(300_000);
