import { readConnectionDetails } from '../config/destination-config.js';
import { laneLimitsOf } from './destination-delivery-queue.js';

const limits = (type: string, details: object) => laneLimitsOf(readConnectionDetails(type, details).config);

describe('laneLimitsOf: a destination lane from its settings', () => {
  it('counts a webhook by requests', () => {
    expect(limits('webhook', { url: 'https://h.example', concurrency: 4, rate_per_second: 20 })).toEqual({
      concurrency: 4,
      ratePerSecond: 20,
    });
  });

  it('counts e-mail by messages: a job of batch_size messages starts rate / batch_size times a second', () => {
    expect(limits('email', { from: 'a@b.example', text: 'x', rate_per_second: 50, batch_size: 10 })).toEqual({
      concurrency: 2,
      ratePerSecond: 5,
    });
  });

  it('leaves AMQP unbounded but by its concurrency unless it names a rate', () => {
    expect(limits('amqp', { url: 'amqp://b.example', exchange: 'x' })).toEqual({
      concurrency: 2,
      ratePerSecond: undefined,
    });
    expect(limits('amqp', { url: 'amqp://b.example', exchange: 'x', rate_per_second: 1000, batch_size: 100 })).toEqual({
      concurrency: 2,
      ratePerSecond: 10,
    });
  });

  it('writes files one at a time, and holds what cannot deliver to one job at a time', () => {
    expect(limits('file', { format: 'csv' })).toEqual({ concurrency: 1 });
    expect(limits('kafka', {})).toEqual({ concurrency: 1 });
    expect(laneLimitsOf(undefined)).toEqual({ concurrency: 1 });
  });
});
