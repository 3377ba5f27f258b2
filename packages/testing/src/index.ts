export { fixturePath, fixturesDir, haveFixtures, isCi, readFixtureJson, readFixtureJsonl, readFixtureText } from './fixtures.js'
