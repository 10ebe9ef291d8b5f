import { chooseFault } from '../../src/sandbox/sandbox.faults';
import { RateLimiter } from '../../src/sandbox/sandbox.rate-limit';
import { operatorFor, scenarioFor } from '../../src/sandbox/sandbox.records';

describe('chooseFault', () => {
  const settings = {
    errorRate: 0.1,
    resetRate: 0.2,
    hangRate: 0.1,
    malformedRate: 0.1,
    slowBodyRate: 0.1,
    vanishRate: 0.1,
  };

  it.each([
    [0, 'error'],
    [0.05, 'error'],
    [0.15, 'reset'],
    [0.35, 'hang'],
    [0.45, 'malformed'],
    [0.55, 'slowBody'],
    [0.65, 'vanish'],
    [0.75, undefined],
  ])('a draw of %p picks %p', (draw, fault) => {
    expect(chooseFault(settings, () => draw)).toBe(fault);
  });

  it('picks nothing without settings', () => {
    expect(chooseFault({}, () => 0)).toBeUndefined();
  });
});

describe('RateLimiter', () => {
  it('allows the limit per minute per key, then answers the whole seconds left in the window', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(2, () => now);
    expect(limiter.take('a')).toEqual({ allowed: true });
    expect(limiter.take('a')).toEqual({ allowed: true });
    expect(limiter.take('b')).toEqual({ allowed: true });
    now += 20_500;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSec: 40 });
    now += 39_000;
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSec: 1 });
    now += 500;
    expect(limiter.take('a')).toEqual({ allowed: true });
  });

  it('never limits with 0', () => {
    const limiter = new RateLimiter(0);
    for (let i = 0; i < 1000; i += 1) expect(limiter.take('a').allowed).toBe(true);
  });
});

describe('scenarioFor', () => {
  it.each([
    ['0012345111', { create: 'failed' }],
    ['0012345000', { create: 'normal', settlesAs: 'Failed' }],
    ['0012345222', { create: 'normal' }],
    ['0012345500', { create: 'server-error' }],
    ['0012345408', { create: 'slow', settlesAs: 'Successful' }],
    ['0012345425', { create: 'intake', settlesAs: 'Successful' }],
    ['0012345410', { create: 'vanish' }],
    ['0012345678', { create: 'normal', settlesAs: 'Successful' }],
    ['1000', { create: 'normal', settlesAs: 'Failed' }],
  ])('%s → %p', (accountNumber, scenario) => {
    expect(scenarioFor(accountNumber)).toEqual(scenario);
  });
});

describe('operatorFor', () => {
  it('knows only the six sandbox prefixes', () => {
    expect(operatorFor('260771234567')).toBe('OperatorAMoney');
    expect(operatorFor('260881234567')).toBeUndefined();
    expect(operatorFor('__proto__')).toBeUndefined();
  });
});
