import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { AuthRateLimited } from '../../common/throttling/auth-rate-limit.js';
import { Public } from '../../common/auth/public.decorator.js';
import { RequestId } from '../../common/http/request-id.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';
import { CurrentUserResponse } from './dto/user.response.js';
import { AuthService } from './auth.service.js';
import { LoginDto } from './dto/login.dto.js';
import { LoginResponse } from './dto/login.response.js';
import { ForgotPasswordDto, ResetPasswordDto } from './dto/password-reset.dto.js';
import { PasswordResetService } from './password-reset.service.js';
import { IdempotentReplays, ResponseMessage, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Session')
@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly passwordReset: PasswordResetService,
  ) {}

  @Post('login')
  @Public()
  @AuthRateLimited()
  @SuccessStatus(200)
  @ApiOperation({ summary: 'Sign in on one device; answers a bearer token for that device' })
  @ResponseMessage('Login successful.')
  @ApiEnvelope(LoginResponse)
  login(@Body() dto: LoginDto): Promise<LoginResponse> {
    return this.auth.login(dto);
  }

  @Post('logout')
  @SuccessStatus(200)
  @ApiOperation({ summary: 'Revoke the token used for this request (other devices stay signed in)' })
  @ResponseMessage('Logged out successfully.')
  @ApiEnvelope(null)
  @IdempotentReplays()
  logout(@Auth() auth: AuthContext): Promise<null> {
    return this.auth.logout(auth.user);
  }

  @Get('user')
  @ApiOperation({ summary: 'The signed-in user, with roles and effective permissions' })
  @ApiEnvelope(CurrentUserResponse)
  currentUser(@Auth() auth: AuthContext): Promise<CurrentUserResponse> {
    return this.auth.currentUser(auth);
  }

  @Post('forgot-password')
  @Public()
  @AuthRateLimited()
  @SuccessStatus(200)
  @ApiOperation({
    summary: 'Mail a password-reset link to an existing user',
    description:
      'Mails `APP_URL/reset-password?token=<token>&email=<email>`. The token is single-use and valid 60 minutes; ' +
      'a new request replaces the previous link. An unknown e-mail is a 422 on `email`.',
  })
  @ResponseMessage('We have emailed your password reset link.')
  @ApiEnvelope(null)
  @ApiResponse({
    status: 502,
    description: 'The mail transport refused the message or was unreachable',
    type: ErrorBodyDto,
  })
  forgotPassword(@Body() dto: ForgotPasswordDto): Promise<null> {
    return this.passwordReset.forgotPassword(dto);
  }

  @Post('reset-password')
  @Public()
  @AuthRateLimited()
  @SuccessStatus(200)
  @ApiOperation({
    summary: 'Set a new password with the token of a reset e-mail',
    description:
      'Signs the user out everywhere: every token of the user is revoked. ' +
      'A bad, used or expired token is a 422 on `email`.',
  })
  @ResponseMessage('Your password has been reset.')
  @ApiEnvelope(null)
  resetPassword(@Body() dto: ResetPasswordDto, @RequestId() requestId: string): Promise<null> {
    return this.passwordReset.resetPassword(dto, requestId);
  }
}
