import { Injectable } from '@nestjs/common';
import bcrypt from 'bcrypt';

/** bcrypt at cost 10: about 55 ms per hash on the reference machine (2 cores). */
export const BCRYPT_COST = 10;

// Compared against when the e-mail is unknown, so both failures take the same time.
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', BCRYPT_COST);

@Injectable()
export class PasswordHasher {
  hash(password: string): Promise<string> {
    return bcrypt.hash(password, BCRYPT_COST);
  }

  verify(password: string, hash: string | undefined): Promise<boolean> {
    return bcrypt.compare(password, hash ?? DUMMY_HASH).then((ok) => ok && hash !== undefined);
  }
}
