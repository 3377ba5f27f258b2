/** Every test file: the unit project's and the integration project's together. */
export const allTests: string[] = ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'bench/**/*.test.ts', 'test/**/*.test.ts']

/**
 * The unit project (`npm run test:unit`): the test files named `*.unit.test.ts`, pure logic that
 * starts no server, database or child process. Every other test file is in the integration
 * project; `npm test` runs both. packages/testing/src/unitGuard.ts makes a unit test that
 * listens, connects or spawns fail, and test/repository/unitProject.unit.test.ts checks that none
 * imports the database or server helpers. A name, not a list: a file keeps its project when it moves.
 */
export const unitTests: string[] = allTests.map((glob) => glob.replace(/\*\.test\.ts$/, '*.unit.test.ts'))
