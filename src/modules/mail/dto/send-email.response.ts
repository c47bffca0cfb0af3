import { ApiProperty } from '@nestjs/swagger';

export class SendEmailResponse {
  @ApiProperty({
    description: 'The Message-ID the transport gave the message',
    example: '<5f0c2a1e-8d6b-4a51-9a43-2f1d0c7b9e10@example.com>',
  })
  message_id: string;
}
