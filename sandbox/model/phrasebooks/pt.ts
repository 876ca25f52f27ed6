import type { Phrasebook } from './phrasebook.ts';

export const pt: Phrasebook = {
  summary: (f) =>
    `${f.person} é ${f.title} na ${f.company}. Nesta função, ${f.firstName} é responsável pelas decisões que definem o crescimento da empresa no setor ${f.industry ?? 'do seu mercado'}.`,
  openingTalk: (i, f, topic) =>
    topic
      ? [`Li a sua publicação sobre «${topic}»: o que o levou a escrever sobre isso agora?`, `A sua publicação sobre «${topic}» chamou a minha atenção: como isso afeta os planos da ${f.company}?`, `Você escreveu sobre «${topic}». Como a sua equipa está a lidar com isso este ano?`][i % 3]
      : [`Como está a mudar a sua função de ${f.title} na ${f.company} este ano?`, `Qual é a maior prioridade da ${f.company} para os próximos meses?`, `Como a sua equipa mede o sucesso no setor ${f.industry ?? 'do seu mercado'}?`][i % 3],
  postSummary: (author, topic) => `${author} escreve sobre «${topic}» e partilha o ponto de vista da sua equipa.`,
  problems: (f) => [
    `Ajuda os seus clientes a reduzir os custos do trabalho no setor ${f.industry ?? 'do seu mercado'}.`,
    'Poupa o tempo que as equipas perdem com tarefas manuais.',
    'Dá aos clientes uma visão clara dos dados de que precisam para as suas decisões.',
    'Reduz o risco de erros nas operações diárias dos seus clientes.',
  ],
  services: (f) => [
    `A oferta principal da ${f.company} no setor ${f.industry ?? 'de serviços'}`,
    'A implementação e a integração de novos clientes',
    'O suporte e a formação para as equipas dos seus clientes',
    'A consultoria sobre os processos dos seus clientes',
  ],
  icp: (f) => [
    `As empresas de média dimensão no setor ${f.industry ?? 'do seu mercado'}`,
    'As grandes empresas com equipas em vários países',
    'As start-ups de crescimento rápido que precisam de escalar',
    'As instituições públicas e as organizações com requisitos rigorosos',
  ],
  synergy: (i, f) =>
    `${f.product} pode apoiar a ${f.company} com ${f.feature(i)}, o que se ajusta ao trabalho da equipa em ${['custos', 'rapidez', 'qualidade', 'crescimento'][i % 4]}.`,
  discovery: (i, f) =>
    [
      `Como é que a ${f.company} trata isto hoje, e onde é que ${f.product} poderia facilitar o trabalho?`,
      `Que equipa da ${f.company} usaria primeiro ${f.feature(0)} do ${f.product}?`,
      `O que é que ${f.product} teria de mostrar nos primeiros três meses para ser um sucesso para vocês?`,
    ][i % 3],
  insights: (f) => [
    `A ${f.company} concorre com os atores estabelecidos do setor ${f.industry ?? 'do seu mercado'} pela qualidade do serviço.`,
    'A empresa pode crescer mais do que o mercado se mantiver o foco nos seus principais clientes.',
    'A sua posição é forte onde os clientes precisam de apoio local e de conhecimento.',
    'O principal risco para a empresa é a pressão sobre os preços dos concorrentes maiores.',
  ],
  newsSummary: (company, title) => `Notícia sobre a ${company}: «${title}». É um sinal importante para os planos da empresa.`,
  companyPostSummary: (company, topic) => `A ${company} escreve sobre «${topic}» numa publicação para os seus clientes e parceiros.`,
  generic: (field, i) => `Ponto ${i + 1} sobre ${field}, com base nos dados do pedido.`,
};
