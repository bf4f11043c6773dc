// French messages: the server has every language, a browser loads only its page's (loadMessages).
import type { MessageTable } from './messages.js';

export const messages: MessageTable = {
  required: 'Ce champ est obligatoire.',
  invalid_type: 'Ce champ doit être du texte.',
  name_too_long: 'Utilisez au plus {max} caractères.',
  name_invalid_chars: 'Le nom ne doit pas contenir de caractères de contrôle, de mise en forme ou invisibles.',
  name_combining_marks: 'Utilisez au plus {max} accents sur une même lettre.',
  invalid_email: 'Saisissez une adresse e-mail valide.',
  email_too_long: "L'adresse e-mail doit comporter au plus {max} caractères.",
  email_local_too_long: 'La partie avant le @ doit comporter au plus {max} caractères.',
  email_taken: 'Un compte existe déjà ici avec cette adresse e-mail.',
  password_too_short: 'Utilisez au moins {min} caractères.',
  password_too_long: 'Utilisez au plus {max} caractères.',
  password_too_common:
    'Ce mot de passe est facile à deviner\u00a0: c’est un mot de passe courant ou un motif (répétitions, suites, rangées du clavier, mots courants suivis de chiffres). Utilisez plutôt quelques mots sans rapport entre eux.',
  password_too_similar:
    'Sans votre nom, votre adresse e-mail ou le nom de ce site, le reste de ce mot de passe est facile à deviner.',
  password_mismatch: 'Les mots de passe ne correspondent pas.',
  password_unchanged: "Le nouveau mot de passe doit être différent de l'actuel.",
  password_incorrect: 'Le mot de passe est incorrect.',
  credentials_invalid: "L'adresse e-mail ou le mot de passe est incorrect.",
  cursor_invalid: "Ce lien de page n'est pas valide\u00a0: recommencez à la première page.",
  reset_token_invalid: "Ce lien n'est plus valide. Demandez-en un nouveau.",
  verify_token_invalid: "Ce lien n'est plus valide. Demandez-en un nouveau.",
  validation_failed: 'Certains champs ne sont pas valides.',
  invalid_body: 'Le corps de la requête est illisible.',
  invalid_host: 'La requête ne nomme aucun hôte valide, ou sa cible en nomme un autre.',
  duplicate_field: 'Un champ a été envoyé plusieurs fois.',
  unauthenticated: "Vous n'êtes pas connecté ou votre session a expiré.",
  cross_origin: 'Les requêtes d’une autre origine ne sont pas autorisées.',
  not_found: 'Introuvable.',
  realm_not_found: "Ce domaine n'existe pas ici.",
  method_not_allowed: "Cette méthode n'est pas autorisée ici.",
  payload_too_large: 'Le corps de la requête est trop volumineux.',
  headers_too_large: 'Les en-têtes de la requête sont trop volumineux.',
  unsupported_media_type: 'Envoyez le corps au format application/x-www-form-urlencoded.',
  unsupported_media_type_json: 'Envoyez le corps au format application/json.',
  rate_limited: 'Trop de requêtes. Réessayez dans {wait}.',
  too_many_attempts: 'Trop d’essais erronés (mots de passe ou codes) pour ce compte. Réessayez dans {wait}.',
  too_many_codes: 'Trop de codes erronés. Réessayez dans {wait}.',
  server_busy: 'Le serveur est surchargé. Réessayez dans quelques secondes.',
  not_ready: "Le service n'est pas prêt. Réessayez dans un instant.",
  origin_unknown:
    "Aucune adresse publique n'est configurée pour ce site : liens et clés d'accès ne peuvent pas être créés.",
  internal: 'Une erreur est survenue de notre côté.',
  provider_unknown: "Ce moyen de connexion n'existe pas ici.",
  upstream_failed: "La connexion avec ce fournisseur n'a pas abouti. Réessayez, ou connectez-vous autrement.",
  upstream_unavailable:
    'Ce fournisseur de connexion est injoignable pour le moment. Réessayez plus tard, ou connectez-vous autrement.',
  upstream_link_required:
    'Un compte avec cette adresse e-mail existe déjà. Connectez-vous une fois avec son propre mot de passe (et sa deuxième étape) pour relier le fournisseur.',
  upstream_email_unverified:
    "Un compte avec cette adresse e-mail existe déjà, et le fournisseur n'a pas confirmé l'adresse. Connectez-vous plutôt avec votre mot de passe.",
  upstream_email_missing: "Le fournisseur n'a pas transmis d'adresse e-mail. Connectez-vous autrement.",
  connection_taken: 'Ce compte chez le fournisseur est déjà relié à un autre compte ici.',
  connection_last_way_in:
    "C'est votre seul moyen de connexion. Définissez d'abord un mot de passe ou ajoutez une clé d'accès.",
  connection_recheck_required:
    "Pour relier un compte, reconnectez-vous d'abord (mot de passe ou deuxième étape) : cela doit dater de moins de cinq minutes.",
  interaction_expired:
    "Cette connexion à une application a expiré ou est déjà terminée. Revenez à l'application et recommencez.",
  email_not_verified: "Confirmez d'abord votre adresse e-mail avec le lien que nous vous avons envoyé.",
  totp_code_format: "Saisissez le code à 6 chiffres de votre application d'authentification.",
  second_step_code_format:
    "Saisissez le code à 6 chiffres de votre application d'authentification, ou un code de récupération (xxxxx-xxxxx).",
  code_incorrect: "Ce code n'est pas correct, ou il a déjà été utilisé.",
  second_factor_required: 'Terminez la connexion avec votre deuxième étape : une clé d’accès ou un code.',
  sign_in_expired: 'Cette connexion a expiré ou a été annulée. Reconnectez-vous avec votre mot de passe.',
  two_step_on:
    "La connexion en deux étapes est déjà activée. Désactivez-la d'abord pour configurer une autre application d'authentification.",
  two_step_off: "La connexion en deux étapes n'est pas activée pour ce compte.",
  totp_not_set_up:
    "Commencez d'abord la configuration : scannez le nouveau code QR, puis saisissez le code affiché par votre application.",
  passkey_challenge_invalid: 'Cette demande de clé d’accès a expiré ou a déjà été utilisée. Réessayez.',
  passkey_rejected: 'Cette clé d’accès n’a pas pu être vérifiée ici. Réessayez, ou connectez-vous d’une autre manière.',
  password_recheck_required: 'Saisissez votre mot de passe actuel pour continuer.',
  second_factor_recheck_required:
    'Pour votre sécurité, confirmez qu’il s’agit bien de vous avec votre deuxième étape : un code ou une clé d’accès.',
  recovery_code_format: 'Saisissez un code de récupération (xxxxx-xxxxx).',
  totp_off: 'L’application d’authentification n’est pas activée pour ce compte.',
  email_unchanged: 'C’est déjà l’adresse de votre compte.',
  email_change_token_invalid: 'Ce lien n’est plus valide. Demandez à nouveau le changement.',
};
