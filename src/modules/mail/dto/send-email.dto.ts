import { ApiPropertyOptional } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { MailAddressField, NestedArrayField, StringField } from '../../../common/fields/fields.js';

/** type/subtype as RFC 6838 names them; nothing else may reach the Content-Type header. */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

export class EmailAttachmentDto {
  @StringField({
    max: 1024,
    example: 'reports/2026-01.pdf',
    description: 'Path of a file relative to the storage area (`STORAGE_DIR/app/`)',
  })
  path: string;

  @StringField({
    required: false,
    nullable: true,
    max: 255,
    example: 'January report.pdf',
    description: 'File name shown to the recipient; default: the name of the file',
  })
  as?: string | null;

  @ApiPropertyOptional({ pattern: MEDIA_TYPE.source })
  @Matches(MEDIA_TYPE, { message: 'The mime field must be a valid media type, such as application/pdf.' })
  @StringField({
    required: false,
    nullable: true,
    max: 255,
    example: 'application/pdf',
    description: 'Media type; default: derived from the file name',
  })
  mime?: string | null;
}

export class SendEmailDto {
  @MailAddressField({ example: 'ada@example.com' })
  to: string;

  @StringField({ max: 255, example: 'Your January report' })
  subject: string;

  @StringField({
    example: '<p>Hello Ada,</p><p>the report is attached.</p>',
    description: 'HTML body; a plain-text version is derived from it and sent alongside',
  })
  content: string;

  @MailAddressField({
    required: false,
    nullable: true,
    example: 'reports@example.com',
    description: 'Sender address; default: `MAIL_FROM`',
  })
  from_email?: string | null;

  @StringField({ required: false, nullable: true, max: 255, example: 'Reporting team' })
  from_name?: string | null;

  @MailAddressField({ required: false, nullable: true, example: 'support@example.com' })
  reply_to?: string | null;

  @NestedArrayField(() => EmailAttachmentDto, { required: false, nullable: true })
  attachments?: EmailAttachmentDto[] | null;
}
