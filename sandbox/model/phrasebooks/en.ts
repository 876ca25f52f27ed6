import type { Phrasebook } from './phrasebook.ts';

export const en: Phrasebook = {
  summary: (f) =>
    `${f.person} is ${f.title} at ${f.company}. In this role, ${f.firstName} is responsible for the decisions that shape the growth of the company in ${f.industry ?? 'its market'}.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`I read your post about "${topic}" – what made you write about it now?`, `Your post about "${topic}" caught my attention: how does it affect the plans of ${f.company}?`, `You wrote about "${topic}". How is your team handling it this year?`][i % 3]
      : [`How is your role as ${f.title} at ${f.company} changing this year?`, `What is the biggest priority for ${f.company} in the coming months?`, `How does your team measure success in ${f.industry ?? 'your market'}?`][i % 3],
  postSummary: (author, topic) => `${author} writes about "${topic}" and shares the point of view of the team.`,
  problems: (f) => [
    `It helps its customers to reduce the costs of their work in ${f.industry ?? 'their market'}.`,
    'It saves the time that teams lose on manual tasks.',
    'It gives customers a clear view of the data they need for their decisions.',
    'It lowers the risk of errors in the daily operations of its customers.',
  ],
  services: (f) => [
    `The main ${f.industry ?? 'business'} offer of ${f.company}`,
    'Implementation and onboarding for new customers',
    'Support and training for the teams of its customers',
    'Consulting on the processes of its customers',
  ],
  icp: (f) => [
    `Mid-sized companies in ${f.industry ?? 'its market'}`,
    'Large enterprises with teams in several countries',
    'Fast-growing start-ups that need to scale',
    'Public institutions and organisations with strict requirements',
  ],
  synergy: (i, f) =>
    `${f.product} can support ${f.company} with ${f.feature(i)}, which fits the work of the team on ${['costs', 'speed', 'quality', 'growth'][i % 4]}.`,
  discovery: (i, f) =>
    [
      `How does ${f.company} handle this today, and where could ${f.product} make the work easier?`,
      `Which team at ${f.company} would use ${f.feature(0)} from ${f.product} first?`,
      `What would ${f.product} need to show in the first three months to be a success for you?`,
    ][i % 3],
  insights: (f) => [
    `${f.company} competes with the established players in ${f.industry ?? 'its market'} on the quality of its service.`,
    'The company can grow faster than the market if it keeps its focus on its main customers.',
    'Its position is strong where the customers need local support and expertise.',
    'The main risk for the company is the price pressure from larger competitors.',
  ],
  newsSummary: (company, title) => `News about ${company}: "${title}". It is an important signal for the plans of the company.`,
  companyPostSummary: (company, topic) => `${company} writes about "${topic}" in a post for its customers and partners.`,
  generic: (field, i) => `Point ${i + 1} about ${field}, based on the data of the request.`,
};
