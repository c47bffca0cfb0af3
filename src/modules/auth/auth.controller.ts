import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { AuthRateLimited } from '../../common/throttling/auth-rate-limit.js';
import { CurrentUser } from '../../common/auth/current-user.decorator.js';
import { Public } from '../../common/auth/public.decorator.js';
import { ResponseMessage } from '../../common/http/envelope.interceptor.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { CurrentUserResponse } from '../admin/dto/user.response.js';
import { AuthService } from './auth.service.js';
import { LoginDto } from './dto/login.dto.js';
import { LoginResponse } from './dto/login.response.js';

@ApiTags('Session')
@Controller()
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @Public()
  @AuthRateLimited()
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign in on one device; answers a bearer token for that device' })
  @ResponseMessage('Login successful.')
  @ApiEnvelope(LoginResponse)
  login(@Body() dto: LoginDto): Promise<LoginResponse> {
    return this.auth.login(dto);
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke the token used for this request (other devices stay signed in)' })
  @ResponseMessage('Logged out successfully.')
  @ApiEnvelope(null)
  async logout(@CurrentUser() user: AuthUser): Promise<null> {
    await this.auth.logout(user);
    return null;
  }

  @Get('user')
  @ApiOperation({ summary: 'The signed-in user, with roles and effective permissions' })
  @ApiEnvelope(CurrentUserResponse)
  currentUser(@CurrentUser() user: AuthUser): Promise<CurrentUserResponse> {
    return this.auth.currentUser(user);
  }
}
